print('snippet')
